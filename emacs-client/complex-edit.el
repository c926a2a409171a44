;;; complex-edit.el --- Edit a buffer with one instruction, through complex-edit's language server  -*- lexical-binding: t; -*-

;; Author: the complex-edit authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (jsonrpc "1.0.14"))
;; Keywords: tools, convenience
;; URL: https://github.com/complex-edit/complex-edit

;;; Commentary:

;; `M-x complex-edit' asks for an instruction and runs the `performComplexEdit' command of the
;; `complex-edit lsp' language server on the current buffer (the active region is its `range');
;; `C-u M-x complex-edit' lets the edit change other files of the workspace too.
;; The request is asynchronous: Emacs stays usable while the sub-agent works, the mode line
;; shows its progress, `M-x complex-edit-cancel' (or C-g in the buffer) cancels it, and the edit
;; lands as one undo step.  `M-x complex-edit-review' proposes the change as hunks kept or
;; dropped one by one (complex-edit-review.el).  The server is reached through eglot
;; (complex-edit-eglot.el) or lsp-mode (complex-edit-lsp-mode.el); see README.md.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'url-parse)
(require 'url-util)

(defgroup complex-edit nil
  "Edit a buffer with one instruction through the complex-edit language server."
  :group 'tools
  :prefix "complex-edit-")

(defcustom complex-edit-executable "complex-edit"
  "The `complex-edit' executable (a name on `exec-path' or a file name).
Emacs starts it as \"EXECUTABLE lsp\"."
  :type 'string)

(defcustom complex-edit-server-args '("lsp")
  "Arguments given to `complex-edit-executable' to start the language server."
  :type '(repeat string))

(defcustom complex-edit-settings nil
  "Server settings sent as LSP initializationOptions, a plist.
For example (:thinkingLevel \"low\" :maxTurns 8).  The names are the
contract's: model, thinkingLevel, maxTurns, temperature, requestTimeoutSeconds,
maxDocumentBytes, baseUrl, provider, review, validate."
  :type '(plist :key-type symbol :value-type sexp))

(defcustom complex-edit-quit-cancels t
  "When non-nil, C-g in a buffer whose edit is running cancels that edit."
  :type 'boolean)

(defcustom complex-edit-done-hook nil
  "Functions run when an edit ends, in the edited buffer.
Each gets one argument: the answer, a plist with the contract's fields
\(:success :message :error :reason :applied :diff ...); booleans are t or
:json-false.  A cancelled edit is (:success :json-false :reason \"cancelled\").
After a review it also has :kept and :declined."
  :type 'hook)

(defcustom complex-edit-confirm-edits nil
  "When non-nil, ask before an edit of the server lands (naming its files).
By default nothing is asked: you asked for the edit, and `complex-edit-review'
is the way to confirm changes.  While the question is open, the package tells
the server it is asking (`complexEdit/asking'), so the server's wait for
the answer (setting applyTimeoutSeconds) stretches to
`complex-edit-question-seconds'; an answer given after the server stopped
waiting applies nothing."
  :type 'boolean)

(defcustom complex-edit-question-seconds 300
  "How long the server waits for your answer to `complex-edit-confirm-edits'."
  :type 'number)

(defface complex-edit-mode-line '((t :inherit mode-line-emphasis))
  "Face of the running edit in the mode line.")

(defface complex-edit-review-old '((t :inherit diff-removed :strike-through t))
  "Text a change replaces: in a review, and in the live preview.")

(defface complex-edit-review-new '((t :inherit diff-added))
  "Text a change inserts: in a review, and in the live preview.")

(defvar complex-edit-instruction-history nil
  "Instructions given to `complex-edit' and `complex-edit-review'.")

(defvar complex-edit--backend-finders nil
  "Functions called in a buffer; each returns a backend plist for it, or nil.
A backend plist has :name, :connection, :uri and :version (functions of no
argument, called in the buffer), :send (PARAMS ON-RESULT ON-ERROR, returns a
handle), :cancel (HANDLE, returns non-nil when no answer will follow), :to-lsp
\(POS) and :to-point (LSP-POSITION); optionally :not-a-project (a function: why
the server's folder is no workspace root, or nil).")

(cl-defstruct (complex-edit--job (:constructor complex-edit--job-create))
  buffer backend handle review (started (float-time)) progress cancelled uri)

(defconst complex-edit--cancel-wait 5 "Seconds to wait for the answer to a cancel.")
(defvar complex-edit--requests nil
  "The package's requests waiting for their answer, each (CONNECTION . HANDLE).")
(defvar complex-edit--jobs nil "The edits that are running, newest first.")
(defvar complex-edit--timer nil "Refreshes the mode line's elapsed time while edits run.")

(defvar-local complex-edit--job nil "The edit running in this buffer, if any.")
(defvar complex-edit--job-end-functions nil
  "Functions called with a job when it ends (its live preview is cleared).")

;;;; Small helpers

(defun complex-edit--true-p (value)
  "Non-nil when the JSON VALUE is true."
  (and value (not (eq value :json-false))))

(defun complex-edit--edit-buffers (edit uri-to-path)
  "The live buffers the WorkspaceEdit EDIT (a plist) touches.
URI-TO-PATH turns a URI into a file name (each backend has its own)."
  (delq nil (mapcar #'find-buffer-visiting (complex-edit--edit-files edit uri-to-path))))

(defun complex-edit--plist (value)
  "VALUE with hash tables turned into plists with keyword keys, recursively."
  (cond ((hash-table-p value)
         (let (plist)
           (maphash (lambda (key item)
                      (setq plist (nconc plist (list (intern (format ":%s" key))
                                                     (complex-edit--plist item)))))
                    value)
           plist))
        ((vectorp value) (vconcat (mapcar #'complex-edit--plist value)))
        ((and (consp value) (keywordp (car value)))
         (cl-loop for (key item) on value by #'cddr
                  nconc (list key (complex-edit--plist item))))
        ((and (consp value) (listp (cdr value)))     ; a JSON array read as a list
         (vconcat (mapcar #'complex-edit--plist value)))
        (t value)))

(defun complex-edit-with (plist &rest pairs)
  "A copy of PLIST with the keys and values of PAIRS set."
  (let ((copy (copy-sequence plist)))
    (cl-loop for (key value) on pairs by #'cddr
             do (setq copy (plist-put copy key value)))
    copy))

(defun complex-edit-program ()
  "The server command: `complex-edit-executable' (expanded) and its arguments."
  (cons (if (file-name-directory complex-edit-executable)
            (expand-file-name complex-edit-executable)
          complex-edit-executable)
        complex-edit-server-args))

(defvar complex-edit-live-preview)

(defun complex-edit-initialization-options ()
  "`complex-edit-settings', and livePreview while `complex-edit-live-preview'."
  (append complex-edit-settings (when complex-edit-live-preview '(:livePreview t))))

(defun complex-edit--backend ()
  "The backend of the current buffer, or a `user-error' saying how to get one."
  (or (run-hook-with-args-until-success 'complex-edit--backend-finders)
      (user-error "Complex Edit: no complex-edit server in this buffer; start it with %s"
                  (cond ((featurep 'eglot) "M-x eglot (see complex-edit-eglot-register)")
                        ((featurep 'lsp-mode) "M-x lsp")
                        (t "eglot or lsp-mode (see the README)")))))

(defun complex-edit--ask (prompt)
  "The arguments of an edit command: its instruction, read with PROMPT.
A buffer without a server is refused first, before the instruction is asked for."
  (complex-edit--backend)
  (list (complex-edit--read-instruction prompt)))

(defun complex-edit--read-instruction (prompt)
  "Read an instruction with PROMPT, refusing an empty one."
  (let ((text (string-trim (read-string prompt nil 'complex-edit-instruction-history))))
    (when (string-empty-p text)
      (user-error "Complex Edit: no instruction"))
    text))

(defun complex-edit-send (backend params on-result on-error)
  "Send the command PARAMS through BACKEND; ON-RESULT or ON-ERROR gets the answer.
Returns the request, (CONNECTION . HANDLE), listed in `complex-edit--requests'
until it is answered (or `complex-edit--forget'-ten)."
  (let ((request (list (plist-get backend :connection))))
    (push request complex-edit--requests)
    (setcdr request
            (funcall (plist-get backend :send) params
                     (lambda (result) (complex-edit--forget request) (funcall on-result result))
                     (lambda (err) (complex-edit--forget request) (funcall on-error err))))
    request))

(defun complex-edit--forget (request)
  "REQUEST is answered, or no answer will come."
  (setq complex-edit--requests (delq request complex-edit--requests)))

(defun complex-edit--uri-file (uri)
  "The file name of the file URI."
  (url-unhex-string (url-filename (url-generic-parse-url uri))))

(defun complex-edit-before-server-edit (connection files notify)
  "Get ready for an edit the server at CONNECTION sends, of FILES (file names).
Visit (without showing) every one not visited, so eglot asks no question.
With `complex-edit-confirm-edits', ask first: NOTIFY (called with the params of
`complexEdit/asking') tells the server, whose wait then covers the question.
Returns nil to go ahead, or the reason to refuse the edit (a string)."
  (let ((waiting (cl-remove-if-not (lambda (request) (eq (car request) connection))
                                   complex-edit--requests)))
    (cond
     ((and complex-edit-confirm-edits
           (progn (ignore-errors
                    (funcall notify `(:seconds ,complex-edit-question-seconds)))
                  (not (y-or-n-p (format "Complex Edit wants to edit:\n  %s\nProceed? "
                                         (mapconcat #'abbreviate-file-name files "\n  "))))))
      "you declined the edit")
     ((and waiting (cl-notany (lambda (request) (memq request complex-edit--requests))
                              waiting))
      ;; The command was answered (the server stopped waiting) while the question was open.
      (message "Complex Edit: answered after the server stopped waiting (applyTimeoutSeconds, \
complex-edit-question-seconds); nothing was applied")
      "answered after the server had stopped waiting for it; nothing was applied")
     (t
      (dolist (file files)
        (unless (find-buffer-visiting file)
          (find-file-noselect file)))
      nil))))

(defun complex-edit--edit-files (edit uri-to-path)
  "The file names the WorkspaceEdit EDIT (a plist) changes.
URI-TO-PATH reads a URI."
  (delete-dups
   (mapcar uri-to-path
           (append (cl-loop for (uri _edits) on (plist-get edit :changes) by #'cddr
                            collect (substring (symbol-name uri) 1))
                   (mapcar (lambda (change) (plist-get (plist-get change :textDocument) :uri))
                           (plist-get edit :documentChanges))))))

;;;; The mode line

(defun complex-edit--mode-line ()
  "The mode-line text of the current buffer's running edit."
  (when-let ((job complex-edit--job))
    (propertize
     (format " Complex Edit: %s %ds%s "
             (if (complex-edit--job-cancelled job) "cancelling…" "running…")
             (round (- (float-time) (complex-edit--job-started job)))
             (if-let ((progress (complex-edit--job-progress job))) (concat " · " progress) ""))
     'face 'complex-edit-mode-line
     'help-echo "M-x complex-edit-cancel (or C-g here) cancels it")))

(defconst complex-edit--mode-line-entry '(complex-edit--job (:eval (complex-edit--mode-line)))
  "The entry of `mode-line-misc-info'.
A list: a bare symbol first would make `mode-line-misc-info' a conditional.")

(defun complex-edit--tick ()
  "Redraw the mode lines of the buffers whose edit is running."
  (dolist (job complex-edit--jobs)
    (when (buffer-live-p (complex-edit--job-buffer job))
      (with-current-buffer (complex-edit--job-buffer job) (force-mode-line-update)))))

(defun complex-edit-progress (connection value)
  "Show the work-done progress VALUE (a plist) of the server at CONNECTION.
Backends call it with the server's `$/progress' values."
  (when-let ((text (or (plist-get value :message) (plist-get value :title))))
    (dolist (job complex-edit--jobs)
      (when (eq (plist-get (complex-edit--job-backend job) :connection) connection)
        (setf (complex-edit--job-progress job) (truncate-string-to-width text 40 nil nil "…")))))
  (complex-edit--tick))

;;;; Running an edit

(define-minor-mode complex-edit--waiting-mode
  "On while an edit runs in this buffer: C-g cancels it."
  :lighter nil
  :keymap (let ((map (make-sparse-keymap)))
            (define-key map (kbd "C-g") #'complex-edit-keyboard-quit)
            map))

(defun complex-edit--start (job)
  "Record JOB as running."
  (with-current-buffer (complex-edit--job-buffer job)
    (setq complex-edit--job job)
    (complex-edit--waiting-mode 1))
  (push job complex-edit--jobs)
  (unless (member complex-edit--mode-line-entry mode-line-misc-info)
    (push complex-edit--mode-line-entry mode-line-misc-info))
  (unless complex-edit--timer
    (setq complex-edit--timer (run-with-timer 1 1 #'complex-edit--tick)))
  (complex-edit--tick))

(defun complex-edit--stop (job)
  "Forget JOB; nil when it had already ended."
  (when (memq job complex-edit--jobs)
    (setq complex-edit--jobs (delq job complex-edit--jobs))
    (complex-edit--forget (complex-edit--job-handle job))
    (run-hook-with-args 'complex-edit--job-end-functions job)
    (when (and (null complex-edit--jobs) complex-edit--timer)
      (cancel-timer complex-edit--timer)
      (setq complex-edit--timer nil))
    (when (buffer-live-p (complex-edit--job-buffer job))
      (with-current-buffer (complex-edit--job-buffer job)
        (when (eq complex-edit--job job)
          (setq complex-edit--job nil)
          (complex-edit--waiting-mode -1))
        (force-mode-line-update)))
    t))

(defun complex-edit--arguments (backend prompt review &optional other-files)
  "The command's argument object for PROMPT in the current buffer.
Positions are BACKEND's.  OTHER-FILES, when given, is the argument otherFiles."
  (let ((to-lsp (plist-get backend :to-lsp)))
    `(:textDocument (:uri ,(funcall (plist-get backend :uri)))
      :prompt ,prompt
      ,@(when (use-region-p)
          `(:range (:start ,(funcall to-lsp (region-beginning))
                    :end ,(funcall to-lsp (region-end)))))
      ,@(when review '(:review t))
      ,@(when other-files `(:otherFiles ,other-files)))))

(defun complex-edit--run (prompt review &optional other-files)
  "Send PROMPT for the current buffer; REVIEW asks for hunks to review.
OTHER-FILES \"edit\" lets the edit change other files of the workspace too."
  (when complex-edit--job
    (user-error "Complex Edit: an edit is already running here (M-x complex-edit-cancel)"))
  (let* ((backend (complex-edit--backend))
         (refusal (and other-files (plist-get backend :not-a-project)
                       (funcall (plist-get backend :not-a-project))))
         (arguments (progn (when refusal (user-error "Complex Edit: %s" refusal))
                           (complex-edit--arguments backend prompt review other-files)))
         (job (complex-edit--job-create :buffer (current-buffer) :backend backend :review review
                                        :uri (funcall (plist-get backend :uri)))))
    (deactivate-mark)
    ;; Whatever was typed before is its own undo step, apart from the edit.
    (undo-boundary)
    (setf (complex-edit--job-handle job)
          (complex-edit-send
           backend `(:command "performComplexEdit" :arguments [,arguments])
           (lambda (result) (complex-edit--answered job (complex-edit--plist result)))
           (lambda (err) (complex-edit--failed job (complex-edit--plist err)))))
    (complex-edit--start job)
    (message "Complex Edit: running… (M-x complex-edit-cancel or C-g cancels)")))

(defun complex-edit-report (buffer answer &optional uri)
  "Show how ANSWER ended in the echo area.
Then run `complex-edit-done-hook' in BUFFER.  URI is BUFFER's document."
  (message "%s" (complex-edit--describe answer uri))
  (when (buffer-live-p buffer)
    (with-current-buffer buffer
      (run-hook-with-args 'complex-edit-done-hook answer))))

(defun complex-edit--finish (job answer)
  "Report ANSWER of JOB."
  (complex-edit-report (complex-edit--job-buffer job) answer (complex-edit--job-uri job)))

(defun complex-edit--other-files (answer uri)
  "The other files ANSWER's edit across files changed, for the echo area.
\" (also changed: b.py, c.py; unsaved, C-x s saves them)\": its documents other
than the one at URI.  The backend visits a file the edit changes that was not
visited, and leaves every changed buffer unsaved."
  (let (names unsaved)
    (mapc (lambda (document)
            (let ((other (plist-get document :uri)))
              (when (and (stringp other) (not (equal other uri)))
                (let* ((file (url-unhex-string (url-filename (url-generic-parse-url other))))
                       (buffer (find-buffer-visiting file)))
                  (push (file-relative-name file) names)
                  (when (and buffer (buffer-modified-p buffer))
                    (setq unsaved t))))))
          (plist-get answer :documents))
    (if (null names)
        ""
      (format " (also changed: %s%s)" (string-join (nreverse names) ", ")
              (if unsaved "; unsaved, C-x s saves them" "")))))

(defun complex-edit--describe (answer &optional uri)
  "One line for the echo area saying how ANSWER ended.
URI is the edited buffer's: the other files an edit across files changed are
named."
  (cond
   ((complex-edit--true-p (plist-get answer :success))
    (format "Complex Edit: %s%s%s" (or (plist-get answer :message) "done")
            (if (eq (plist-get answer :confirmed) :json-false) " (not yet confirmed)" "")
            (if (complex-edit--true-p (plist-get answer :applied))
                (complex-edit--other-files answer uri)
              "")))
   ((equal (plist-get answer :reason) "cancelled")
    (format "Complex Edit: %s" (plist-get answer :error)))
   (t (propertize (format "Complex Edit failed%s: %s"
                          (if-let ((reason (plist-get answer :reason)))
                              (format " (%s)" reason)
                            "")
                          (or (plist-get answer :error) "the server gave no reason"))
                  'face 'error))))

(defun complex-edit--answered (job answer)
  "The server answered JOB with ANSWER."
  (when (complex-edit--stop job)
    (let ((buffer (complex-edit--job-buffer job)))
      ;; The edit (applied by the backend) is its own undo step, apart from what follows.
      (when (buffer-live-p buffer)
        (with-current-buffer buffer (undo-boundary)))
      (if (and (complex-edit--job-review job)
               (complex-edit--true-p (plist-get answer :success))
               (> (length (plist-get answer :hunks)) 0)
               (buffer-live-p buffer))
          (with-current-buffer buffer
            (complex-edit-review-start answer (complex-edit--job-backend job)))
        (complex-edit--finish job answer)))))

(defun complex-edit--failed (job err)
  "The server answered JOB with the JSON-RPC error ERR."
  (when (complex-edit--stop job)
    (complex-edit--finish
     job
     (pcase (plist-get err :code)
       (-32800
        `(:success :json-false :reason "cancelled"
          :error ,(if (plist-get err :unanswered)
                      "cancelled (the server did not answer the cancel)"
                    "cancelled; nothing was applied")
          :applied :json-false))
       (_ (complex-edit-error-answer err))))))

(defun complex-edit-error-answer (err)
  "The failed answer for the JSON-RPC error ERR, in the server's own words.
Its reason is the code the server gave (`data.code'), if any: none is made up."
  (let ((code (plist-get (plist-get err :data) :code)))
    `(:success :json-false :applied :json-false
      ,@(when (stringp code) (list :reason code))
      :error ,(format "%s; nothing was applied"
                      (or (plist-get err :message)
                          (format "the server answered JSON-RPC error %s"
                                  (plist-get err :code)))))))

;;;; Commands

;;;###autoload
(defun complex-edit (prompt &optional across-files)
  "Edit the current buffer as PROMPT says, through the complex-edit server.
With an active region, the region is the part the instruction is about.  With a
prefix argument (ACROSS-FILES), the edit may change other files of the workspace
too (otherFiles \"edit\"); they are left unsaved."
  (interactive (append (complex-edit--ask
                        (if current-prefix-arg "Complex Edit (across files): " "Complex Edit: "))
                       (list current-prefix-arg)))
  (complex-edit--run prompt nil (when across-files "edit")))

;;;###autoload
(defun complex-edit-across-files (prompt)
  "Edit as PROMPT says; the edit may change other files of the workspace too.
The same as `C-u M-x complex-edit'."
  (interactive (complex-edit--ask "Complex Edit (across files): "))
  (complex-edit--run prompt nil "edit"))

;;;###autoload
(defun complex-edit-review (prompt &optional across-files)
  "Like `complex-edit' for PROMPT, but review the proposed changes first.
Each is kept or dropped; nothing is written before.  With a prefix argument
\(ACROSS-FILES), the edit may change other files too, and the review goes
through every file's changes, file by file."
  (interactive (append (complex-edit--ask
                        (if current-prefix-arg "Complex Edit (review across files): "
                          "Complex Edit (review): "))
                       (list current-prefix-arg)))
  (complex-edit--run prompt t (when across-files "edit")))

;;;###autoload
(defun complex-edit-review-across-files (prompt)
  "Review an edit of PROMPT that may change other files too, file by file.
The same as `C-u M-x complex-edit-review'."
  (interactive (complex-edit--ask "Complex Edit (review across files): "))
  (complex-edit--run prompt t "edit"))

;;;###autoload
(defun complex-edit-cancel ()
  "Cancel the edit running in this buffer (or the newest one anywhere)."
  (interactive)
  (let ((job (or complex-edit--job (car complex-edit--jobs))))
    (unless job
      (user-error "Complex Edit: nothing is running"))
    (setf (complex-edit--job-cancelled job) t)
    (if (condition-case err
            (funcall (plist-get (complex-edit--job-backend job) :cancel)
                     (cdr (complex-edit--job-handle job)))
          ;; The connection is gone: no answer will come.
          (error (message "Complex Edit: %s" (error-message-string err)) t))
        (complex-edit--failed job '(:code -32800))
      (message "Complex Edit: cancelling…")
      (complex-edit--tick)
      ;; The server answers a cancel at once; do not wait for ever if it cannot.
      (run-with-timer complex-edit--cancel-wait nil
                      (lambda ()
                        (complex-edit--failed job '(:code -32800 :unanswered t)))))))

(defun complex-edit-keyboard-quit ()
  "C-g while an edit runs here: cancel it (see `complex-edit-quit-cancels')."
  (interactive)
  (if (and complex-edit-quit-cancels complex-edit--job
           (not (complex-edit--job-cancelled complex-edit--job))
           (not (region-active-p)))
      (complex-edit-cancel)
    (keyboard-quit)))

(declare-function complex-edit-review-start "complex-edit-review" (answer backend))
(autoload 'complex-edit-review-start "complex-edit-review")
(autoload 'complex-edit-doctor "complex-edit-doctor" nil t)
(autoload 'complex-edit-history "complex-edit-history" nil t)
(autoload 'complex-edit-revert "complex-edit-history" nil t)
(autoload 'complex-edit-eglot-register "complex-edit-eglot")
(autoload 'complex-edit-lsp-mode-register "complex-edit-lsp-mode")

(provide 'complex-edit)
(require 'complex-edit-live)

(with-eval-after-load 'eglot (require 'complex-edit-eglot))
(with-eval-after-load 'lsp-mode (require 'complex-edit-lsp-mode))

;;; complex-edit.el ends here
