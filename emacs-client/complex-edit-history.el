;;; complex-edit-history.el --- The edits that landed, and taking one back  -*- lexical-binding: t; -*-

;;; Commentary:

;; `M-x complex-edit-history' lists the edits the server recorded for the workspace (LSP
;; command `complexEdit.history {limit?}': newest first, each {id, time, instruction, files,
;; added, removed}) in a `tabulated-list-mode' buffer; `r' there takes back the edit at point.
;; `M-x complex-edit-revert' takes back the latest one (with a prefix argument: the one you
;; pick by its instruction).  A revert (`complexEdit.revert {id?, force?}') is the inverse
;; change of every file the edit changed, landed all or nothing as one workspace edit (the
;; package visits the files, leaves them unsaved); its answer is shaped like an edit's.  When
;; a file's changed lines changed again since, the server answers `reason: "conflict"' and
;; reverts nothing; the package then asks whether to force it.

;;; Code:

(require 'cl-lib)
(require 'tabulated-list)
(require 'complex-edit)

(defcustom complex-edit-history-limit 50
  "How many edits `complex-edit-history' asks the server for."
  :type 'integer
  :group 'complex-edit)

(defconst complex-edit-history-buffer "*complex-edit history*")

(defvar-local complex-edit-history--backend nil
  "The backend (of the buffer it was opened from) the history buffer talks through.")
(defvar-local complex-edit-history--origin nil "The buffer the history was opened from.")

(defun complex-edit-history--request (backend command arguments on-answer)
  "Send COMMAND with ARGUMENTS through BACKEND; ON-ANSWER gets the answer (a plist
or a vector), or a failed answer in the server's words."
  (complex-edit-send backend `(:command ,command :arguments [,arguments])
                     (lambda (result) (funcall on-answer (complex-edit--plist result)))
                     (lambda (err)
                       (funcall on-answer (complex-edit-error-answer (complex-edit--plist err))))))

(defun complex-edit-history--entries (answer)
  "The list of edits in ANSWER (a list, or an object holding one)."
  (append (cond ((vectorp answer) answer)
                ((consp answer) (or (plist-get answer :edits) (plist-get answer :history)
                                    (plist-get answer :entries)))
                (t nil))
          nil))

(defun complex-edit-history--row (edit)
  "The `tabulated-list-entries' row of EDIT."
  (let ((files (append (plist-get edit :files) nil)))
    (list (plist-get edit :id)
          (vector (format "%s" (or (plist-get edit :time) ""))
                  (format "+%s −%s" (or (plist-get edit :added) 0)
                          (or (plist-get edit :removed) 0))
                  (string-join files ", ")
                  (replace-regexp-in-string "\n" " "
                                            (or (plist-get edit :instruction) ""))))))

(define-derived-mode complex-edit-history-mode tabulated-list-mode "Complex Edit History"
  "The edits complex-edit landed in this workspace, newest first.
\\<complex-edit-history-mode-map>\\[complex-edit-history-revert] takes back the edit \
at point; \\[revert-buffer] reads the list again."
  (setq tabulated-list-format [("Time" 20 t) ("Lines" 10 nil) ("Files" 30 nil)
                               ("Instruction" 0 nil)]
        tabulated-list-padding 1)
  (add-hook 'tabulated-list-revert-hook #'complex-edit-history--refresh nil t)
  (tabulated-list-init-header))

(define-key complex-edit-history-mode-map (kbd "r") #'complex-edit-history-revert)

(defun complex-edit-history--show (answer backend origin)
  "Show the history ANSWER (BACKEND and ORIGIN: where it came from)."
  (with-current-buffer (get-buffer-create complex-edit-history-buffer)
    (complex-edit-history-mode)
    (setq complex-edit-history--backend backend
          complex-edit-history--origin origin)
    (setq tabulated-list-entries (mapcar #'complex-edit-history--row
                                         (complex-edit-history--entries answer)))
    (tabulated-list-print)
    (if (and (consp answer) (plist-get answer :error))
        (message "Complex Edit: %s" (plist-get answer :error))
      (unless tabulated-list-entries
        (message "Complex Edit: no edit recorded for this workspace yet")))
    (pop-to-buffer (current-buffer))))

(defun complex-edit-history--refresh ()
  "Read the history again (`revert-buffer' in the history buffer)."
  (let ((backend complex-edit-history--backend)
        (origin complex-edit-history--origin))
    (complex-edit-history--request
     backend "complexEdit.history" `(:limit ,complex-edit-history-limit)
     (lambda (answer) (complex-edit-history--show answer backend origin)))))

;;;###autoload
(defun complex-edit-history ()
  "List the edits complex-edit landed in this workspace, newest first."
  (interactive)
  (let ((backend (complex-edit--backend))
        (origin (current-buffer)))
    (complex-edit-history--request
     backend "complexEdit.history" `(:limit ,complex-edit-history-limit)
     (lambda (answer) (complex-edit-history--show answer backend origin)))))

(defun complex-edit-history--revert (backend origin id &optional force)
  "Take back the edit ID (nil: the latest) through BACKEND; report in ORIGIN.
FORCE reverts over a conflict.  On a conflict, ask whether to force it."
  (complex-edit-history--request
   backend "complexEdit.revert" `(,@(when id (list :id id)) ,@(when force '(:force t)))
   (lambda (answer)
     (if (and (equal (plist-get answer :reason) "conflict") (not force)
              (y-or-n-p (format "Complex Edit: %s  Revert anyway (force)? "
                                (or (plist-get answer :error) "a file changed since."))))
         (complex-edit-history--revert backend origin id t)
       (complex-edit-report origin answer
                            (when (buffer-live-p origin)
                              (with-current-buffer origin
                                (ignore-errors (funcall (plist-get backend :uri))))))))))

;;;###autoload
(defun complex-edit-revert (&optional id)
  "Take back the latest edit complex-edit landed in this workspace, in every file.
With a prefix argument, pick the edit (ID) from the history by its instruction.
The files it reverts are left unsaved; the echo area says what happened."
  (interactive
   (list (when current-prefix-arg
           (complex-edit-history--pick (complex-edit--backend)))))
  (let ((backend (complex-edit--backend)))
    (complex-edit-history--revert backend (current-buffer) id)))

(defun complex-edit-history--pick (backend)
  "Read an edit of the history through BACKEND by its instruction; its id."
  (let ((answer nil)
        (deadline (+ (float-time) 10)))
    (complex-edit-history--request backend "complexEdit.history"
                                   `(:limit ,complex-edit-history-limit)
                                   (lambda (result) (setq answer (or result []))))
    (while (and (null answer) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (let* ((choices (mapcar (lambda (edit)
                              (cons (format "%s  %s" (plist-get edit :time)
                                            (plist-get edit :instruction))
                                    (plist-get edit :id)))
                            (complex-edit-history--entries answer))))
      (unless choices
        (user-error "Complex Edit: no edit recorded for this workspace"))
      (cdr (assoc (completing-read "Revert the edit: " choices nil t) choices)))))

(defun complex-edit-history-revert ()
  "Take back the edit at point of the history list, in every file it changed."
  (interactive)
  (let ((id (tabulated-list-get-id)))
    (unless id (user-error "Complex Edit: no edit here"))
    (when (y-or-n-p (format "Revert \"%s\"? " (aref (tabulated-list-get-entry) 3)))
      (complex-edit-history--revert complex-edit-history--backend
                                    complex-edit-history--origin id))))

(provide 'complex-edit-history)

;;; complex-edit-history.el ends here
