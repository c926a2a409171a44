;;; complex-edit-eglot.el --- complex-edit through eglot  -*- lexical-binding: t; -*-

;;; Commentary:

;; The server as an eglot server of its own class, `complex-edit-eglot-server', so that what
;; eglot (1.9 in Emacs 28, built in from Emacs 29) does not do for it is done here, for this
;; server only:
;; - it announces `window.workDoneProgress', and shows the server's `$/progress' in the mode line;
;; - a server edit gets an undo boundary before and after it (one undo takes back exactly the
;;   edit), is not put to a "Proceed?" prompt (the user asked for it; `complex-edit-review'
;;   is the way to confirm changes), and its `didChange' leaves at once instead of from an idle
;;   timer, so the server reads it before the editor's answer;
;; - the command is an asynchronous request, cancelled with `$/cancelRequest'.
;; Register it for the major modes you want with `complex-edit-eglot-register'.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'complex-edit)

(defclass complex-edit-eglot-server (eglot-lsp-server) ()
  :documentation "The complex-edit language server, as eglot sees it.")

(defun complex-edit-eglot-contact (&optional _interactive)
  "The eglot contact of the server.
Its class, `complex-edit-executable' and `complex-edit-server-args'."
  (cons 'complex-edit-eglot-server (complex-edit-program)))

;;;###autoload
(defun complex-edit-eglot-register (modes)
  "Make `M-x eglot' start complex-edit for MODES, a major mode or a list.
Eglot runs one server per buffer: in these modes it replaces any other."
  (require 'eglot)
  (add-to-list 'eglot-server-programs (cons modes #'complex-edit-eglot-contact)))

(defun complex-edit-eglot--not-a-project (server)
  "Why SERVER's folder is no workspace root (a transient project), or nil.
eglot makes the folder of a file outside any project a transient project;
other files are never read there."
  (let ((project (eglot--project server)))
    (when (eq (car-safe project) 'transient)
      (format "%s is not a project (eglot's transient project for a file outside \
version control), so the server gets the document alone (setting otherFiles \"off\"); \
for edits that read or change other files, open the file inside a version-controlled \
folder" (abbreviate-file-name (project-root project))))))

(cl-defmethod eglot-initialization-options ((server complex-edit-eglot-server))
  "`complex-edit-settings' (and livePreview), as initializationOptions.
In a transient project, with otherFiles \"off\"."
  (let ((refusal (complex-edit-eglot--not-a-project server))
        (options (complex-edit-initialization-options)))
    (when refusal  ; (said when an edit across files is asked for)
      (setq options (complex-edit-with options :otherFiles "off")))
    (or options eglot--{})))

(cl-defmethod eglot-client-capabilities :around ((_server complex-edit-eglot-server))
  "Eglot's capabilities, plus `window.workDoneProgress'."
  (let ((capabilities (cl-call-next-method)))
    (plist-put capabilities :window
               (plist-put (copy-sequence (plist-get capabilities :window))
                          :workDoneProgress t))))

(cl-defmethod eglot-handle-request
  ((_server complex-edit-eglot-server) (_method (eql window/workDoneProgress/create))
   &key _token)
  "Accept the server's progress token."
  nil)

(cl-defmethod eglot-handle-notification
  ((server complex-edit-eglot-server) (_method (eql $/progress)) &key _token value)
  "Show the server's progress VALUE in the mode line."
  (complex-edit-progress server value))

(cl-defmethod eglot-handle-notification
  ((_server complex-edit-eglot-server) (_method (eql complexEdit/preview))
   &key textDocument hunks done)
  "Draw the change so far: TEXTDOCUMENT's HUNKS (cleared when DONE)."
  (complex-edit-live-show (list :textDocument textDocument :hunks hunks :done done)
                          #'eglot--lsp-position-to-point
                          (lambda () eglot--versioned-identifier)))

(defvar eglot-confirm-server-edits)     ; eglot 1.16+

(cl-defmethod eglot-handle-request :around
  ((server complex-edit-eglot-server) (_method (eql workspace/applyEdit)) &key _label edit)
  "Apply EDIT as one undo step, without eglot's prompt; report the change at once.
Every file it changes is visited first (eglot 1.9 asks before it edits a file
that is not); `complex-edit-confirm-edits' asks instead, telling the server."
  (when-let ((refusal (complex-edit-before-server-edit
                       server (complex-edit--edit-files edit #'eglot--uri-to-path)
                       (lambda (params) (jsonrpc-notify server :complexEdit/asking params)))))
    (jsonrpc-error refusal))
  (let ((buffers (complex-edit--edit-buffers edit #'eglot--uri-to-path))
        (eglot-confirm-server-initiated-edits nil)
        (eglot-confirm-server-edits nil))
    (dolist (buffer buffers)
      (with-current-buffer buffer (undo-boundary)))
    (prog1 (cl-call-next-method)
      ;; (with the buffers eglot visited to apply it: a file the edit changes, not visited
      ;; before, that eglot's managed mode took over)
      (dolist (buffer (complex-edit--edit-buffers edit #'eglot--uri-to-path))
        (with-current-buffer buffer
          (when (memq buffer buffers)
            (undo-boundary))
          (when (eglot-managed-p)
            (eglot--signal-textDocument/didChange)))))))

(defun complex-edit-eglot--send (server params on-result on-error)
  "Send the command PARAMS to SERVER.
ON-RESULT or ON-ERROR is called with its answer; returns the request id."
  ;; What was typed since the last idle moment reaches the server before the command.
  (eglot--signal-textDocument/didChange)
  (jsonrpc-async-request server :workspace/executeCommand params
                         :success-fn on-result
                         :error-fn on-error
                         :timeout nil)
  ;; `jsonrpc-async-request' returns nil; the id it just took is the connection's last one.
  (jsonrpc--next-request-id server))

(defun complex-edit-eglot--cancel (server id)
  "Send `$/cancelRequest' for request ID to SERVER; its answer still follows."
  (jsonrpc-notify server :$/cancelRequest `(:id ,id))
  nil)

(defun complex-edit-eglot--offers-command-p (server)
  "Non-nil when SERVER advertises performComplexEdit."
  (let ((provider (plist-get (eglot--capabilities server) :executeCommandProvider)))
    (seq-contains-p (plist-get provider :commands) "performComplexEdit")))

(defun complex-edit-eglot-backend ()
  "The eglot backend of the current buffer, when its server is complex-edit."
  (when-let* (((bound-and-true-p eglot--managed-mode))
              (server (eglot-current-server))
              ((or (cl-typep server 'complex-edit-eglot-server)
                   (complex-edit-eglot--offers-command-p server))))
    (list :name 'eglot
          :connection server
          :uri (lambda () (plist-get (eglot--TextDocumentIdentifier) :uri))
          :version (lambda () eglot--versioned-identifier)
          :send (lambda (params on-result on-error)
                  (complex-edit-eglot--send server params on-result on-error))
          :cancel (lambda (id) (complex-edit-eglot--cancel server id))
          :not-a-project (lambda () (and (cl-typep server 'complex-edit-eglot-server)
                                         (complex-edit-eglot--not-a-project server)))
          :to-lsp #'eglot--pos-to-lsp-position
          :to-point #'eglot--lsp-position-to-point)))

(add-hook 'complex-edit--backend-finders #'complex-edit-eglot-backend)

(provide 'complex-edit-eglot)

;;; complex-edit-eglot.el ends here
