;;; complex-edit-lsp-mode.el --- complex-edit through lsp-mode  -*- lexical-binding: t; -*-

;;; Commentary:

;; The server as an lsp-mode add-on client (`complex-edit'): it runs beside the buffer's other
;; servers.  Its `workspace/applyEdit' handler puts an undo boundary before and after the edit
;; (one undo takes back exactly the edit); its `$/progress' handler feeds the mode line and
;; lsp-mode's own progress display.  lsp-mode counts columns in code points and announces no
;; position encoding, so the server reads positions as UTF-16: the region and the review hunks
;; are converted here in UTF-16.  Choose the major modes with `complex-edit-lsp-mode-register'.

;;; Code:

(require 'cl-lib)
(require 'lsp-mode)
(require 'complex-edit)

(defvar complex-edit-lsp-mode-modes nil
  "Major modes (and modes derived from them) where lsp-mode starts complex-edit.")

;;;###autoload
(defun complex-edit-lsp-mode-register (modes)
  "Make `M-x lsp' start complex-edit for MODES, a major mode or a list.
It runs beside the other servers of those buffers."
  (require 'lsp-mode)
  (dolist (mode (if (listp modes) modes (list modes)))
    (add-to-list 'complex-edit-lsp-mode-modes mode)))

(defun complex-edit-lsp-mode--activate-p (_file-name _mode)
  "Non-nil when the major mode is one of `complex-edit-lsp-mode-modes'."
  (apply #'derived-mode-p complex-edit-lsp-mode-modes))

(defun complex-edit-lsp-mode--apply-edit (workspace params)
  "Apply the server's edit PARAMS as one undo step.
`complex-edit-confirm-edits' asks first, telling the server at WORKSPACE."
  (let* ((edit (plist-get (complex-edit--plist params) :edit))
         (refusal (complex-edit-before-server-edit
                   workspace (complex-edit--edit-files edit #'lsp--uri-to-path)
                   (lambda (asking)
                     (with-lsp-workspace workspace
                       (lsp-notify "complexEdit/asking" asking)))))
         (buffers (complex-edit--edit-buffers edit #'lsp--uri-to-path)))
    (dolist (buffer buffers)
      (with-current-buffer buffer (undo-boundary)))
    (prog1 (condition-case err
               (progn (when refusal (error "%s" refusal))
                      (lsp--apply-workspace-edit (lsp:apply-workspace-edit-params-edit params)
                                                 'server-requested)
                      '(:applied t))
             (error `(:applied :json-false :failureReason ,(error-message-string err))))
      (dolist (buffer buffers)
        (with-current-buffer buffer (undo-boundary))))))

(defun complex-edit-lsp-mode--progress (workspace params)
  "Show the server's progress PARAMS in the mode line and in lsp-mode's display."
  (complex-edit-progress workspace (plist-get (complex-edit--plist params) :value))
  (funcall lsp-progress-function workspace params))

(defun complex-edit-lsp-mode--preview (_workspace params)
  "Draw the change so far, the server's `complexEdit/preview' PARAMS."
  (complex-edit-live-show (complex-edit--plist params) #'complex-edit-lsp-mode--to-point
                          (lambda () lsp--cur-version)))

(defun complex-edit-lsp-mode--to-lsp (pos)
  "The LSP position of POS, in UTF-16 code units."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char pos)
      (list :line (1- (line-number-at-pos pos t))
            :character (cl-loop for char across (buffer-substring-no-properties
                                                 (line-beginning-position) pos)
                                sum (if (> char #xFFFF) 2 1))))))

(defun complex-edit-lsp-mode--to-point (position)
  "The point of the LSP POSITION (a plist), in UTF-16 code units."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char (point-min))
      (forward-line (plist-get position :line))
      (let ((units (plist-get position :character)))
        (while (and (> units 0) (not (eolp)))
          (setq units (- units (if (> (char-after) #xFFFF) 2 1)))
          (forward-char)))
      (point))))

(defun complex-edit-lsp-mode--send (workspace params on-result on-error)
  "Send the command PARAMS to WORKSPACE; returns the cancel token."
  (let ((token (make-symbol "complex-edit")))
    (with-lsp-workspace workspace
      (lsp-request-async "workspace/executeCommand" params on-result
                         :error-handler on-error :mode 'detached :cancel-token token))
    token))

(defun complex-edit-lsp-mode-backend ()
  "The lsp-mode backend of the current buffer, when complex-edit serves it."
  (when-let ((workspace (and (bound-and-true-p lsp-mode)
                             (cl-find 'complex-edit (bound-and-true-p lsp--buffer-workspaces)
                                      :key (lambda (workspace)
                                             (lsp--client-server-id
                                              (lsp--workspace-client workspace)))))))
    (list :name 'lsp-mode
          :connection workspace
          :uri #'lsp--buffer-uri
          :version (lambda () lsp--cur-version)
          :send (lambda (params on-result on-error)
                  (complex-edit-lsp-mode--send workspace params on-result on-error))
          ;; lsp-mode forgets the request when it cancels it: no answer will follow.
          :cancel (lambda (token) (lsp-cancel-request-by-token token) t)
          :to-lsp #'complex-edit-lsp-mode--to-lsp
          :to-point #'complex-edit-lsp-mode--to-point)))

(add-hook 'complex-edit--backend-finders #'complex-edit-lsp-mode-backend)

(lsp-register-client
 (make-lsp-client
  :new-connection (lsp-stdio-connection
                   #'complex-edit-program)
  :activation-fn #'complex-edit-lsp-mode--activate-p
  :add-on? t
  :priority -2
  :server-id 'complex-edit
  :initialization-options (lambda () (or (complex-edit-initialization-options)
                                          (make-hash-table)))
  :request-handlers (let ((handlers (make-hash-table :test #'equal)))
                      (puthash "workspace/applyEdit" #'complex-edit-lsp-mode--apply-edit
                               handlers)
                      handlers)
  :notification-handlers (let ((handlers (make-hash-table :test #'equal)))
                           (puthash "$/progress" #'complex-edit-lsp-mode--progress handlers)
                           (puthash "complexEdit/preview" #'complex-edit-lsp-mode--preview
                                    handlers)
                           handlers)))

(provide 'complex-edit-lsp-mode)

;;; complex-edit-lsp-mode.el ends here
